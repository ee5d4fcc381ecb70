module pwm8 (
    input  wire       clk,
    input  wire       rst,
    input  wire [7:0] duty,
    output reg  [7:0] cnt,
    output wire       pwm
);
    reg [7:0] duty_q;

    always @(posedge clk) begin
        if (rst) begin
            cnt <= 8'd0;
            duty_q <= 8'd0;
        end else begin
            cnt <= cnt + 8'd1;
            if (cnt == 8'd255)
                duty_q <= duty;
        end
    end

    assign pwm = (cnt < duty_q);
endmodule
