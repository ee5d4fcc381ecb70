module seq_det_1011 (
    input  wire clk,
    input  wire rst,
    input  wire din,
    output wire det
);
    localparam [2:0] IDLE = 3'd0,  // nothing useful seen
                     G1   = 3'd1,  // seen 1
                     G10  = 3'd2,  // seen 10
                     G101 = 3'd3,  // seen 101
                     HIT  = 3'd4;  // seen 1011

    reg [2:0] state, next;

    always @* begin
        case (state)
            IDLE: next = din ? G1 : IDLE;
            G1:   next = din ? G1 : G10;
            G10:  next = din ? G101 : IDLE;
            G101: next = din ? HIT : G10;
            HIT:  next = din ? G1 : G10;
            default: next = IDLE;
        endcase
    end

    always @(posedge clk) begin
        if (rst)
            state <= IDLE;
        else
            state <= next;
    end

    assign det = (state == HIT);
endmodule
