module debouncer (
    input  wire clk,
    input  wire rst,
    input  wire noisy,
    output reg  clean
);
    reg [1:0] cnt;

    always @(posedge clk) begin
        if (rst) begin
            clean <= 1'b0;
            cnt <= 2'd0;
        end else if (noisy == clean) begin
            cnt <= 2'd0;
        end else if (cnt == 2'd3) begin
            clean <= noisy;
            cnt <= 2'd0;
        end else begin
            cnt <= cnt + 2'd1;
        end
    end
endmodule
