module uart_tx (
    input  wire       clk,
    input  wire       rst,
    input  wire       start,
    input  wire [7:0] data,
    output reg        tx,
    output reg        busy
);
    reg [8:0] frame;     // start bit + data, shifted out LSB first
    reg [3:0] bit_idx;   // 0 = start bit, 1..8 = data, 9 = stop bit
    reg [1:0] phase;     // cycle within the current bit

    always @(posedge clk) begin
        if (rst) begin
            tx <= 1'b1;
            busy <= 1'b0;
            frame <= 9'h1FF;
            bit_idx <= 4'd0;
            phase <= 2'd0;
        end else if (!busy) begin
            if (start) begin
                busy <= 1'b1;
                tx <= 1'b0;
                frame <= {data, 1'b0};
                bit_idx <= 4'd0;
                phase <= 2'd0;
            end
        end else if (phase != 2'd3) begin
            phase <= phase + 2'd1;
        end else begin
            phase <= 2'd0;
            if (bit_idx == 4'd9) begin
                busy <= 1'b0;
                tx <= 1'b1;
            end else begin
                bit_idx <= bit_idx + 4'd1;
                tx <= (bit_idx == 4'd8) ? 1'b1 : frame[bit_idx + 4'd1];
            end
        end
    end
endmodule
